import { authRoutes } from './modules/auth.routes';
import { systemRoutes } from './modules/system.routes';
import { userRoutes } from './modules/users.routes';
import type { AnyRoute } from './route';

/** Every product route, module by module. The docs routes are derived from this list by the app. */
export const apiRoutes: readonly AnyRoute[] = [...systemRoutes, ...authRoutes, ...userRoutes];
