/**
 * Who and what the demo cooperative holds: a savings-and-credit cooperative of Douala with two branches, its
 * staff (one user per role, two tellers at the head office so that the submitter of an application never
 * decides it), its members, and the part each member plays in the story the loader tells.
 */

export type BranchKey = 'akwa' | 'bonaberi';

export const branches: Record<BranchKey, { code: string; name: string; city: string; address: string }> = {
  akwa: { code: 'AKWA', name: 'Siège — Akwa', city: 'Douala', address: 'Boulevard de la Liberté' },
  bonaberi: { code: 'BONA', name: 'Agence de Bonabéri', city: 'Douala', address: 'Carrefour Quatre-Étages' },
};

type Role = 'cashier' | 'branch_head' | 'credit_committee' | 'direction' | 'admin' | 'accountant';

export interface StaffMember {
  /** Appended to the cooperative's code to make the username: `demo.guichet-akwa`. */
  login: string;
  fullName: string;
  role: Role;
  /** null: the whole enterprise. */
  branch: BranchKey | null;
  duty: string;
}

export const staff = {
  teller: {
    login: 'guichet-akwa',
    fullName: 'Aïcha Mbarga',
    role: 'cashier',
    branch: 'akwa',
    duty: 'counter of Akwa: members, deposits, shares, submits applications, disburses, collects',
  },
  cashier: {
    login: 'caisse-akwa',
    fullName: 'Paul Ekwalla',
    role: 'cashier',
    branch: 'akwa',
    duty: 'cashier step of the approval circuit at Akwa',
  },
  branchHead: {
    login: 'chef-akwa',
    fullName: 'Esther Nkoulou',
    role: 'branch_head',
    branch: 'akwa',
    duty: 'head of Akwa: second step of the circuit',
  },
  bonaberiTeller: {
    login: 'guichet-bona',
    fullName: 'Samuel Ndedi',
    role: 'cashier',
    branch: 'bonaberi',
    duty: 'counter of Bonabéri (sees Bonabéri only)',
  },
  committee: {
    login: 'comite',
    fullName: 'Jean-Marc Fotso',
    role: 'credit_committee',
    branch: null,
    duty: 'credit committee: third step',
  },
  direction: {
    login: 'direction',
    fullName: 'Hélène Abena',
    role: 'direction',
    branch: null,
    duty: 'direction: final approval, business date, provisioning',
  },
  accountant: {
    login: 'comptable',
    fullName: 'Nadège Owona',
    role: 'accountant',
    branch: null,
    duty: 'accountant: the opening balance sheet, expenses, suppliers, fixed assets',
  },
  admin: {
    login: 'admin',
    fullName: 'Roger Tchoumi',
    role: 'admin',
    branch: null,
    duty: "administrator of the cooperative: grants its staff's roles",
  },
} as const satisfies Record<string, StaffMember>;

export type StaffKey = keyof typeof staff;

interface Person {
  kind: 'natural_person';
  firstName: string;
  lastName: string;
  gender: 'female' | 'male';
  birthDate: string;
  occupation: string;
}

interface Company {
  kind: 'legal_entity';
  legalName: string;
  occupation: string;
}

export type MemberPlan = (Person | Company) & {
  branch: BranchKey;
  idDocument: string;
  phone: string;
  /** Opening deposit of the current account. */
  deposit: string;
  /** Ordinary shares (002) subscribed and paid at admission; 0: a founder, who holds founder shares. */
  ordinaryShares: number;
  founder?: boolean;
  /** Also a blocked savings book, with this opening deposit. */
  savingsBook?: string;
};

const person = (
  firstName: string,
  lastName: string,
  gender: Person['gender'],
  birthDate: string,
  occupation: string,
): Person => ({ kind: 'natural_person', firstName, lastName, gender, birthDate, occupation });

export const members = {
  // Founders (initiateurs): founder shares, a quarter paid at subscription, a second quarter three months later.
  ngoBassa: {
    ...person('Jeanne', 'Ngo Bassa', 'female', '1968-04-12', 'commerçante'),
    branch: 'akwa',
    idDocument: 'CM100200301',
    phone: '+237 677 12 34 01',
    deposit: '3000000',
    ordinaryShares: 0,
    founder: true,
  },
  tchinda: {
    ...person('Emmanuel', 'Tchinda', 'male', '1971-09-30', 'transporteur'),
    branch: 'akwa',
    idDocument: 'CM100200302',
    phone: '+237 699 45 12 02',
    deposit: '800000',
    ordinaryShares: 0,
    founder: true,
  },
  atangana: {
    ...person('Marie-Claire', 'Atangana', 'female', '1975-01-18', 'pharmacienne'),
    branch: 'akwa',
    idDocument: 'CM100200303',
    phone: '+237 675 88 20 03',
    deposit: '1200000',
    ordinaryShares: 0,
    founder: true,
    savingsBook: '2000000',
  },
  // Borrowers: one loan each, at every stage of its life.
  bello: {
    ...person('Awa', 'Bello', 'female', '1986-06-02', 'couturière'),
    branch: 'akwa',
    idDocument: 'CM100200304',
    phone: '+237 690 11 22 04',
    deposit: '150000',
    ordinaryShares: 20,
  },
  moussa: {
    ...person('Ibrahim', 'Moussa', 'male', '1982-11-21', 'vendeur de pièces détachées'),
    branch: 'akwa',
    idDocument: 'CM100200305',
    phone: '+237 696 30 41 05',
    deposit: '100000',
    ordinaryShares: 15,
  },
  eyenga: {
    ...person('Rosine', 'Eyenga', 'female', '1990-03-14', 'restauratrice'),
    branch: 'akwa',
    idDocument: 'CM100200306',
    phone: '+237 651 72 83 06',
    deposit: '60000',
    ordinaryShares: 10,
  },
  kamga: {
    ...person('Thierry', 'Kamga', 'male', '1979-08-08', 'menuisier'),
    branch: 'akwa',
    idDocument: 'CM100200307',
    phone: '+237 670 54 65 07',
    deposit: '250000',
    ordinaryShares: 25,
  },
  manga: {
    ...person('Odile', 'Manga', 'female', '1984-12-25', 'maraîchère'),
    branch: 'akwa',
    idDocument: 'CM100200308',
    phone: '+237 694 02 13 08',
    deposit: '90000',
    ordinaryShares: 15,
  },
  essomba: {
    ...person('Patrice', 'Essomba', 'male', '1993-05-05', 'conducteur de moto-taxi'),
    branch: 'akwa',
    idDocument: 'CM100200309',
    phone: '+237 658 24 35 09',
    deposit: '40000',
    ordinaryShares: 10,
  },
  nguema: {
    ...person('Sylvie', 'Nguema', 'female', '1988-10-10', 'coiffeuse'),
    branch: 'akwa',
    idDocument: 'CM100200310',
    phone: '+237 682 46 57 10',
    deposit: '180000',
    ordinaryShares: 20,
  },
  fokou: {
    ...person('Boris', 'Fokou', 'male', '1995-02-27', 'vendeur ambulant'),
    branch: 'akwa',
    idDocument: 'CM100200311',
    phone: '+237 655 68 79 11',
    deposit: '30000',
    ordinaryShares: 10,
  },
  // Savers.
  ewane: {
    ...person('Gisèle', 'Ewane', 'female', '1977-07-19', 'institutrice'),
    branch: 'akwa',
    idDocument: 'CM100200312',
    phone: '+237 679 80 91 12',
    deposit: '120000',
    ordinaryShares: 30,
    savingsBook: '300000',
  },
  mvondo: {
    ...person('Alain', 'Mvondo', 'male', '1970-03-03', 'fonctionnaire'),
    branch: 'akwa',
    idDocument: 'CM100200313',
    phone: '+237 699 13 24 13',
    deposit: '400000',
    ordinaryShares: 40,
    savingsBook: '1000000',
  },
  ndjock: {
    ...person('Hervé', 'Ndjock', 'male', '1981-01-09', 'pêcheur'),
    branch: 'bonaberi',
    idDocument: 'CM100200314',
    phone: '+237 677 35 46 14',
    deposit: '75000',
    ordinaryShares: 10,
  },
  din: {
    ...person('Clarisse', 'Din', 'female', '1987-09-15', 'commerçante'),
    branch: 'bonaberi',
    idDocument: 'CM100200315',
    phone: '+237 691 57 68 15',
    deposit: '210000',
    ordinaryShares: 20,
  },
  maraichers: {
    kind: 'legal_entity',
    legalName: 'GIC des Maraîchers de Bonabéri',
    occupation: 'maraîchage',
    branch: 'bonaberi',
    idDocument: 'RC-DLA-2019-B-0415',
    phone: '+237 233 39 12 16',
    deposit: '500000',
    ordinaryShares: 50,
  },
} as const satisfies Record<string, MemberPlan>;

export type MemberKey = keyof typeof members;

export const displayName = (member: MemberPlan) =>
  member.kind === 'legal_entity' ? member.legalName : `${member.firstName} ${member.lastName}`;
