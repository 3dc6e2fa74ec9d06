import * as yup from 'yup';
import type { Branch } from '../../../db/models/branch.model';
import { timestampResponse } from '../common.schemas';

export const branchSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    code: yup.string().required(),
    name: yup.string().required(),
    is_head_office: yup.boolean().required(),
    address: yup.string().defined(),
    city: yup.string().defined(),
    phone: yup.string().defined(),
    status: yup.string().oneOf(['active', 'closed']).required(),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'Branch' });

export function serializeBranch(branch: Branch) {
  return {
    id: branch.id,
    enterprise: branch.enterpriseId,
    code: branch.code,
    name: branch.name,
    is_head_office: branch.isHeadOffice,
    address: branch.address,
    city: branch.city,
    phone: branch.phone,
    status: branch.status,
    created_at: branch.createdAt.toISOString(),
    updated_at: branch.updatedAt.toISOString(),
  };
}
