import type { Page, Session } from './api-client';
import { runProvisioning } from './provisioning';

/** `date` plus `days` calendar days, as YYYY-MM-DD. */
export function addDays(date: string, days: number): string {
  const moved = new Date(`${date}T00:00:00Z`);
  moved.setUTCDate(moved.getUTCDate() + days);
  return moved.toISOString().slice(0, 10);
}

interface Exercice {
  id: string;
  code: string;
  start_date: string;
  end_date: string;
}

/**
 * The cooperative's business date, moved forward by direction as the months of the story pass (ageing,
 * schedules and postings read it; it never moves back). A move into a new civil year opens the next accounting
 * year, provisions the loans as of the last day of the one ended and closes it, as a year end would: postings must
 * fall in an open accounting year, and a year closes only with its last day provisioned.
 */
export class BusinessCalendar {
  private constructor(
    private readonly direction: Session,
    /**
     * The second pair of eyes: moving the business date is a request until another person approves it (docs/domain.md
     * §11).
     */
    private readonly approver: Session,
    private readonly enterpriseId: string,
    private current: string,
  ) {}

  static async of(direction: Session, approver: Session, enterpriseId: string): Promise<BusinessCalendar> {
    const configuration = await direction.get<{ business_date: string }>(
      'read the business date',
      `/api/v1/enterprise/enterprises/${enterpriseId}/configuration/`,
    );
    return new BusinessCalendar(direction, approver, enterpriseId, configuration.business_date);
  }

  get today(): string {
    return this.current;
  }

  async moveTo(date: string): Promise<void> {
    const turning = date.slice(0, 4) !== this.current.slice(0, 4);
    const open = turning ? await this.openYearOf(date) : [];
    const request = await this.requestMove(date);
    if (request !== null)
      await this.approver.post(
        `approve moving the business date to ${date}`,
        `/api/v1/approvals/requests/${request}/approve/`,
        { reason: 'Calendrier de la démo' },
      );
    this.current = date;
    for (const ended of open.filter((exercice) => exercice.end_date < date)) await this.closeYear(ended);
  }

  /** Direction asks to move the business date: the request's id (202), or null when the policy let it move at once. */
  async requestMove(date: string): Promise<string | null> {
    const answer = await this.direction.patch<{ id?: string; status?: string }>(
      `ask to move the business date to ${date}`,
      `/api/v1/enterprise/enterprises/${this.enterpriseId}/configuration/`,
      { business_date: date },
    );
    return answer.status === 'pending' ? answer.id! : null;
  }

  /** The accounting year of `date` opened when missing; answers the years open before. */
  private async openYearOf(date: string): Promise<Exercice[]> {
    const open = await this.direction.get<Page<Exercice>>(
      'read the open accounting years',
      '/api/v1/enterprise/exercices/',
      { enterprise: this.enterpriseId, status: 'open' },
    );
    if (!open.results.some((exercice) => exercice.start_date <= date && date <= exercice.end_date)) {
      const year = date.slice(0, 4);
      await this.direction.post(`open the accounting year ${year}`, '/api/v1/enterprise/exercices/', {
        enterprise: this.enterpriseId,
        code: year,
        start_date: `${year}-01-01`,
        end_date: `${year}-12-31`,
      });
    }
    return open.results;
  }

  /**
   * The loans provisioned as of the year's last day, then the closing, which carries its balances into the next year
   * (its workflow runs on).
   */
  private async closeYear(ended: Exercice): Promise<void> {
    await runProvisioning(this.direction, this.enterpriseId, ended.end_date);
    await this.direction.post(
      `close the accounting year ${ended.code}`,
      `/api/v1/enterprise/exercices/${ended.id}/close/`,
      { reason: 'Clôture de fin d’exercice' },
    );
  }
}
