/**
 * The go-live import's file kinds and their columns (docs/domain.md §15): one declaration that the templates
 * (the data sheet's header and the Documentation sheet) and the validation both read, so what the template says
 * is what validation checks. Pure data.
 */

export const importKinds = [
  'branches-users',
  'members',
  'member-accounts',
  'shares',
  'loan-installments',
  'loans',
  'trial-balance',
] as const;
export type ImportKind = (typeof importKinds)[number];

/**
 * How a cell is read. `amount`: whole francs, digits with an optional `.00` (XAF has no minor unit); `rate`: a
 * decimal fraction with a point (0.035); `date`: one of the three date formats (domain/imports/cells.ts).
 */
export type ColumnFormat = 'text' | 'code' | 'date' | 'amount' | 'integer' | 'rate';

export interface ImportColumn {
  name: string;
  required: boolean;
  format: ColumnFormat;
  /** The codes allowed, for a `code` column whose codes are fixed (a product code's are the enterprise's). */
  codes?: readonly string[];
  /** An amount may be written as French spreadsheets do ("1 234 567,00"). */
  frenchStyle?: boolean;
  /** An amount below zero is refused (a savings balance, a paid amount). */
  notNegative?: boolean;
  example: string;
  description: string;
}

const column = (
  name: string,
  format: ColumnFormat,
  example: string,
  description: string,
  options: Partial<ImportColumn> = {},
): ImportColumn => ({ name, format, example, description, required: true, ...options });
const optional = (
  name: string,
  format: ColumnFormat,
  example: string,
  description: string,
  options: Partial<ImportColumn> = {},
): ImportColumn => column(name, format, example, description, { ...options, required: false });

const money = { frenchStyle: true, notNegative: true } as const;

/** An installment's part due, then what was paid of it. */
const installmentParts = (part: 'principal' | 'interest', example: string, due: string): ImportColumn[] => [
  column(part, 'amount', example, `The ${part} due, in francs: ${due}.`, money),
  column(
    `${part}_paid`,
    'amount',
    example,
    `The ${part} paid by the cut-over date: never over the ${part} due.`,
    money,
  ),
];

export const importTemplates: Record<ImportKind, readonly ImportColumn[]> = {
  'branches-users': [
    column(
      'branch_code',
      'text',
      'AG01',
      "The branch's code, as in the old system (at most 20 characters): a new branch, " +
        'or one the enterprise has under the same name.',
    ),
    column('branch_name', 'text', 'Agence de Bafoussam', "The branch's name: the same on every row of the branch."),
    optional(
      'username',
      'text',
      'mkamga',
      'A user of the branch, if any: one row per user, a name no user of the platform has (3 to 150 letters, ' +
        'digits, . _ -).',
    ),
    optional('full_name', 'text', 'Marie Kamga', "The user's name: required with a username."),
    optional(
      'role',
      'code',
      'cashier',
      "The user's role in the branch, required with a username: a cashier's is granted at once, " +
        'any other by an administrator afterwards (four eyes).',
      { codes: ['cashier', 'branch_head', 'credit_committee', 'accountant'] },
    ),
  ],
  members: [
    column('member_number', 'text', 'M000123', "The member's number, unique in the enterprise."),
    column('branch_code', 'text', 'AG01', "The code of the member's home branch, a branch of the enterprise."),
    column('kind', 'code', 'natural_person', 'A person or a legal entity.', {
      codes: ['natural_person', 'legal_entity'],
    }),
    optional('first_name', 'text', 'Marie', 'Required for a person.'),
    optional('last_name', 'text', 'Kamga', 'Required for a person.'),
    optional('legal_name', 'text', 'GIC Les Semeurs', 'Required for a legal entity.'),
    column('id_document_type', 'code', 'national_id', 'The identity document (business_register for a legal entity).', {
      codes: ['national_id', 'passport', 'residence_permit', 'driving_licence', 'business_register'],
    }),
    column(
      'id_document_number',
      'text',
      '123456789',
      'Its number: letters, digits, / . - (stored in capitals, no spaces).',
    ),
    optional('birth_date', 'date', '1985-03-14', 'Required for a person.'),
    optional('gender', 'code', 'female', "A person's.", { codes: ['female', 'male'] }),
    optional('phone', 'text', '+237 699 00 00 00', 'Free text.'),
    optional('address', 'text', 'Quartier Tamdja', 'Free text.'),
    column(
      'membership_date',
      'date',
      '2015-06-01',
      'When the member joined: on or before the cut-over date (the share rules read the seniority).',
    ),
  ],
  'member-accounts': [
    column('account_number', 'text', 'AG01-EPA-000123', "The account's number, unique in the enterprise."),
    column(
      'member_number',
      'text',
      'M000123',
      'Its member: in the members file of this import, or already a member of the enterprise.',
    ),
    column('product_code', 'code', 'EPA', 'A savings product of the enterprise (members/products).'),
    column('opened_on', 'date', '2015-06-01', 'When the account was opened: on or before the cut-over date.'),
    column(
      'balance',
      'amount',
      '1 234 567',
      'The balance at the cut-over date, in francs: never negative (a savings account is never overdrawn).',
      money,
    ),
    optional('maturity_date', 'date', '2027-06-01', 'Required for a term deposit: after the opening.'),
    optional(
      'interest_rate',
      'rate',
      '0.045',
      "A term deposit's annual rate as its contract says, a fraction with a point: kept until its maturity. Empty: " +
        "the product's.",
    ),
  ],
  shares: [
    column(
      'member_number',
      'text',
      'M000123',
      'The subscribing member: in the members file of this import, or already a member of the enterprise.',
    ),
    column(
      'share_type_code',
      'code',
      '002',
      'A share type of the enterprise (001 founder, 002 ordinary, 003 honorary): one row per member and type.',
    ),
    column(
      'shares',
      'integer',
      '10',
      "How many shares the member holds: at least one, within the type's bounds per member.",
    ),
    column(
      'amount_paid',
      'amount',
      '100 000',
      "What the member has paid up by the cut-over, in francs: at most the shares' nominal value, " +
        'less only if the type allows paying in part.',
      money,
    ),
  ],
  'loan-installments': [
    column(
      'loan_number',
      'text',
      'PR-2024-0042',
      'The loan: a row of the loans file. A loan with no row here has its schedule regenerated from its terms and ' +
        'product.',
    ),
    column('due_date', 'date', '2025-12-15', "The installment's due date: one installment a date for a loan."),
    ...installmentParts('principal', '100 000', "a loan's installments sum to its amount"),
    ...installmentParts('interest', '18 000', 'as the old system scheduled it'),
  ],
  loans: [
    column(
      'loan_number',
      'text',
      'PR-2024-0042',
      "The loan's number in the old system, unique in the enterprise: it stays the loan's number.",
    ),
    column(
      'member_number',
      'text',
      'M000123',
      'The borrower: in the members file of this import, or already a member of the enterprise. The loan is in the ' +
        "borrower's branch.",
    ),
    column(
      'product_code',
      'code',
      'CRT',
      'A loan product of the enterprise: its method, frequency, penalty rate and accounts.',
    ),
    column(
      'original_amount',
      'amount',
      '1 200 000',
      'The amount disbursed, in francs: the principal of the schedule (loan-installments file).',
      money,
    ),
    column('annual_rate', 'rate', '0.18', 'The annual rate, a fraction with a point.'),
    column('term_periods', 'integer', '12', "The number of installments: within the product's bounds."),
    column('disbursement_date', 'date', '2025-11-15', 'When it was disbursed: on or before the cut-over date.'),
    column(
      'principal_paid',
      'amount',
      '300 000',
      "Principal repaid by the cut-over date: the sum of the installments' principal paid, never over the amount.",
      money,
    ),
    column(
      'interest_paid',
      'amount',
      '54 000',
      "Interest paid by the cut-over date: the sum of the installments' interest paid.",
      money,
    ),
    column(
      'classification',
      'code',
      'performing',
      'The class at the cut-over date (COBAC R-2017/07): performing, overdue, doubtful, ' +
        'or litigious (doubtful in litigation).',
      { codes: ['performing', 'overdue', 'doubtful', 'litigious'] },
    ),
    optional(
      'doubtful_since',
      'date',
      '2026-03-31',
      "Required for a doubtful or litigious loan: when it became doubtful (the provision's minimum and account " +
        'count years from it).',
    ),
    optional(
      'provision',
      'amount',
      '0',
      'The provision booked at the cut-over date, in francs: never over the outstanding principal.',
      money,
    ),
    optional(
      'accrued_interest',
      'amount',
      '4 500',
      'Interest earned and not yet due at the cut-over date, in francs, as the old system accrued it: ' +
        'only on a performing loan; empty is 0. The first month end after reverses it.',
      money,
    ),
    optional(
      'loan_officer',
      'text',
      'mkamga',
      'The username of the user who follows the loan; empty: the user who uploaded the file.',
    ),
    optional(
      'guarantor_member_number',
      'text',
      'M000124',
      'A member who stands guarantor (a personal guarantee of guarantee_value).',
    ),
    optional(
      'guarantee_value',
      'amount',
      '500 000',
      "The guarantor's commitment, in francs: required with a guarantor.",
      money,
    ),
    optional(
      'guarantee_held_account',
      'text',
      'AG01-EPA-000124',
      "The guarantor's own account the guarantee holds guarantee_value on (in the member-accounts file or already " +
        "the enterprise's): its balance at the cut-over covers its holds.",
    ),
  ],
  'trial-balance': [
    column('branch_code', 'text', 'AG01', 'The branch whose books the line is.'),
    column('account_code', 'text', '3711', "An account of the enterprise's chart."),
    column(
      'debit',
      'amount',
      '0',
      'The debit balance: plain digits only, so no separator is read as the decimal one.',
      { notNegative: true },
    ),
    column('credit', 'amount', '1234567', 'The credit balance: plain digits only.', { notNegative: true }),
  ],
};

/** The column names of a kind, in the template's order. */
export const columnNames = (kind: ImportKind): string[] => importTemplates[kind].map((entry) => entry.name);
