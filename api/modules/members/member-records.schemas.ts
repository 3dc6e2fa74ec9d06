import * as yup from 'yup';

/** What a member's record shows first (a loan application, a loan, a share subscription…): where, and whose. */
export const memberRecordFields = {
  id: yup.string().uuid().required(),
  enterprise: yup.string().uuid().required(),
  branch: yup.string().uuid().required(),
  client: yup.string().uuid().required(),
};
