/**
 * A validated amount cell read as numeric in SQL (docs/domain.md §15): spaces of French thousands dropped and the
 * zero decimals too. Only for rows validation passed; an empty cell is zero. A cell that does not read as an
 * amount (validation reports it) counts zero, so that a check over the other rows still runs.
 */
export const amountSql = (
  cell: string,
): string => `(CASE WHEN regexp_replace(coalesce(${cell}, ''), '[  \u00a0\u202f]', '',
  'g') ~ '^-{0,1}[0-9]+([.,]0{1,2}){0,1}$'
  THEN regexp_replace(regexp_replace(${cell}, '[  \u00a0\u202f]', '', 'g'), '[.,]0+$', '')::numeric ELSE 0 END)`;

/** A validated date cell (YYYY-MM-DD, DD/MM/YYYY or DD-MM-YYYY) as a date in SQL; an empty cell is null. */
export const dateSql = (
  cell: string,
): string => `(CASE WHEN coalesce(${cell}, '') = '' THEN NULL WHEN ${cell} ~ '^[0-9]{4}-'
  THEN to_date(${cell}, 'YYYY-MM-DD')
  WHEN ${cell} ~ '/' THEN to_date(${cell}, 'DD/MM/YYYY') ELSE to_date(${cell}, 'DD-MM-YYYY') END)`;
