import test from 'ava';
import { parseBankStatement } from '../../domain/accounting/bank-statement-csv';

const parse = (text: string) => parseBankStatement(new TextEncoder().encode(text));

test('comma or semicolon, quoted cells, both date forms, signed or two-sided amounts', (t) => {
  const signed = parse(
    '\uFEFFDate,Label,Reference,Amount,Balance\n' +
      '2026-04-16,"Versement, espèces ""guichet""",B7,"1 500",1500\n' +
      '17/04/2026,Frais,,-250,1250\n',
  );
  t.deepEqual(
    signed.map((line) => [
      line.position,
      line.date,
      line.label,
      line.reference,
      line.amount.toFixed(0),
      line.balance?.toFixed(0),
    ]),
    [
      [1, '2026-04-16', 'Versement, espèces "guichet"', 'B7', '1500', '1500'],
      [2, '2026-04-17', 'Frais', '', '-250', '1250'],
    ],
  );
  const sided = parse(
    'date;value_date;label;debit;credit\n30/04/2026;02/05/2026;+33 agios;1 000;\n30/04/2026;;Virement reçu;;2500,00\n',
  );
  t.deepEqual(
    sided.map((line) => [line.valueDate, line.label, line.amount.toFixed(0), line.balance]),
    [
      ['2026-05-02', '+33 agios', '-1000', null],
      [null, 'Virement reçu', '2500', null],
    ],
  );
});

test('refusals name the row and column', (t) => {
  const fieldOf = (text: string) =>
    (t.throws(() => parse(text)) as unknown as { fieldErrors: { field: string }[] }).fieldErrors[0]!.field;
  t.is(fieldOf('date;label;debit;credit\n2026-04-16;both;1;1\n'), 'row 2, debit');
  t.is(fieldOf('date,label,amount\n2026-04-16,zero,0\n'), 'row 2, amount');
  t.is(fieldOf('date,label,amount\n\n2026-13-01,month,5\n'), 'row 3, date', 'a blank row keeps the numbering');
  t.is(fieldOf('date,label\n2026-04-16,x\n'), 'header');
  t.is(fieldOf('date,label,amount\n'), 'file');
});
