import * as yup from 'yup';
import { nullableId } from './common.schemas';

/**
 * The enterprise a book record or report is of, and its branch: null where it is of no one branch, as
 * `branchDescription` says.
 */
export const bookScopeFields = (branchDescription: string) => ({
  enterprise: yup.string().uuid().required(),
  branch: nullableId(branchDescription),
});
