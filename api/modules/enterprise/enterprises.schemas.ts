import * as yup from 'yup';
import type { Enterprise } from '../../../db/models/enterprise.model';
import { timestampResponse } from '../common.schemas';

// CEMAC member states (ISO 3166-1 alpha-2): Cameroon, Central African Republic, Congo, Gabon, Equatorial Guinea, Chad.
export const cemacCountries = ['CM', 'CF', 'CG', 'GA', 'GQ', 'TD'] as const;

export const enterpriseSchema = yup
  .object({
    id: yup.string().uuid().required(),
    code: yup.string().required(),
    name: yup.string().required(),
    legal_form: yup.string().required(),
    country: yup.string().oneOf(cemacCountries).required(),
    status: yup.string().oneOf(['active', 'suspended']).required(),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'Enterprise' });

export function serializeEnterprise(enterprise: Enterprise) {
  return {
    id: enterprise.id,
    code: enterprise.code,
    name: enterprise.name,
    legal_form: enterprise.legalForm,
    country: enterprise.country,
    status: enterprise.status,
    created_at: enterprise.createdAt.toISOString(),
    updated_at: enterprise.updatedAt.toISOString(),
  };
}
