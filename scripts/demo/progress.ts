import fs from 'node:fs';
import path from 'node:path';
import type { MemberKey } from './cast';

/**
 * What a demo run has built so far, kept in a file beside the service's state (`DATA_DIR/demo/<code>.json`,
 * readable by its owner only: it holds the staff's passwords). A run stopped halfway (Ctrl-C, a refused step)
 * leaves it behind, and the next run with the same code reads it to continue rather than start a twin or claim
 * a load that never finished. Each step records its result as soon as the API has answered it.
 */
export interface DemoProgress {
  enterpriseId?: string;
  /** Username → password, written before the user is created (a password lost is an account lost to the demo). */
  passwords: Record<string, string>;
  /** Registered members: the profile's id, by member. */
  members: Partial<Record<MemberKey, string>>;
  /** Opened accounts by `<what>:<member>`: an opening is not replayed by its key (it would open a second one). */
  accounts: Record<string, string>;
  /** Set when the story (four months of business, one pass) started, and when the whole load ended. */
  storyStarted?: true;
  done?: true;
}

export class ProgressFile {
  readonly progress: DemoProgress;

  constructor(readonly file: string) {
    this.progress = fs.existsSync(file)
      ? (JSON.parse(fs.readFileSync(file, 'utf8')) as DemoProgress)
      : { passwords: {}, members: {}, accounts: {} };
  }

  static of(dataDir: string, code: string): ProgressFile {
    return new ProgressFile(path.join(dataDir, 'demo', `${code.toUpperCase()}.json`));
  }

  /** Records a change at once (a synchronous write: the next request may be the one interrupted). */
  update(change: (progress: DemoProgress) => void): void {
    change(this.progress);
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(this.file, JSON.stringify(this.progress, null, 2), { mode: 0o600 });
  }
}
