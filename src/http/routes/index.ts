// Every route of the service, one file each; adding an endpoint is adding a line here.
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from './deps.ts';
import tokenRoute from './oauth/token.ts';
import listFrameworksRoute from './frameworks/list.ts';
import healthRoutes from './ops/health.ts';

const routes = [tokenRoute, listFrameworksRoute, healthRoutes];

export function registerRoutes(app: FastifyInstance, deps: RouteDeps) {
  for (const route of routes) route(app, deps);
}
