import { systemRoutes } from './modules/system.routes';
import type { AnyRoute } from './route';

/** Every product route, module by module. The docs routes are derived from this list by the app. */
export const apiRoutes: readonly AnyRoute[] = [...systemRoutes];
