export { freePort } from '../../runtime/free-port';
