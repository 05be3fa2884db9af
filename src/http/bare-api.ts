import { IncomingMessage, ServerResponse } from 'node:http';
import { parse as parseQuery, type ParsedUrlQuery } from 'node:querystring';
import type { Express, Request, RequestHandler, Response } from 'express';
import parseUrl from 'parseurl';
import type { Containment } from '../lib/containment.js';
import { noRoute } from '../lib/errors.js';
import { StringMemo } from '../lib/string-memo.js';

/** Answers an error that reached the end of the API's steps, as the app's error handler does. */
export type ErrorAnswer = (error: unknown, req: Request, res: Response) => void;

type Handle = (req: IncomingMessage, res: ServerResponse, callback?: (error?: unknown) => void) => void;

/** What is answered before Express: the requests whose path `matches`, by `handler`. */
export interface BareRoute {
  matches: (path: string) => boolean;
  handler: RequestHandler;
}

/**
 * Answers the API's and the control plane's requests on Node's own request and response objects,
 * before Express.
 *
 * Express 5 gives every request and response its app's prototypes (`Object.setPrototypeOf`)
 * for methods such as `req.get` and `res.json`; Node's HTTP code then meets objects of
 * another shape in every call it makes for them, and `GET /v1/connections` cost 109 µs of
 * CPU through Express against 32 µs for the same steps on Node's objects
 * (docs/performance.md, change 14). The steps use nothing of Express's but what is set here,
 * as Express would have it: `originalUrl`, `baseUrl`, `path` (parseurl's, as Express's getter)
 * and `query` (node:querystring's, Express's "simple" parser); a route mounted under a prefix
 * (`mountedAt`) sees `baseUrl` and `path` as Express's mount gives them. A step added to either
 * must keep to Node's own request and response methods: Express's are not there (decisions 0023
 * and 0060).
 *
 * The proxy's `/v1` is answered the same way. Everything else (the docs, the dashboard's files,
 * media uploads, the sign-in pages, /mcp) goes through Express as before, and so does a request
 * that already carries other prototypes: this app mounted in another Express app, or a server
 * built with its own request or response classes. `mock.app` stays an Express app; this replaces
 * its `handle`, which is what the app function and `app.listen` call.
 */
export function answerBeforeExpress(app: Express, routes: readonly BareRoute[], answerError: ErrorAnswer, containment: Containment): void {
  const express = app as unknown as { handle: Handle };
  const expressHandle = express.handle.bind(app);
  express.handle = (req, res, callback) => {
    if (Object.getPrototypeOf(req) !== IncomingMessage.prototype || Object.getPrototypeOf(res) !== ServerResponse.prototype) return expressHandle(req, res, callback);
    const url = parseUrl(req);
    const path = url?.pathname;
    const route = path ? routeOf(routes, path) : undefined;
    if (!path || !route) return expressHandle(req, res, callback);
    const request = req as Request & { path: string };
    request.originalUrl = req.url as string;
    request.baseUrl = '';
    request.path = path;
    request.query = parsedQuery(typeof url.query === 'string' ? url.query : '');
    const response = res as Response;
    // What comes back from the steps: an error, or nothing answered (no later route serves the path).
    route.handler(request, response, (error?: unknown) => {
      try {
        // As Express's final handler: an answer already under way cannot become an error answer.
        if (res.headersSent) {
          if (error !== undefined) containment.caught('request', error);
          return void req.socket.destroy();
        }
        answerError(error ?? noRoute(request.method, request.originalUrl), request, response);
      } catch (failure) {
        containment.caught('request', failure);
        res.destroy();
      }
    });
  };
}

/** The first route taking the path: a loop, as every request asks (`find` made a closure for each). */
function routeOf(routes: readonly BareRoute[], path: string): BareRoute | undefined {
  for (const route of routes) if (route.matches(path)) return route;
  return undefined;
}

/**
 * `handler` as `app.use(prefix, handler)` runs it: `baseUrl` the prefix as the request spelled it,
 * `path` what follows (`/` for nothing), for a request whose path is under the prefix (`underPrefix`).
 */
export function mountedAt(prefix: string, handler: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const path = req.path;
    const request = req as Request & { path: string };
    request.baseUrl = path.slice(0, prefix.length);
    request.path = path.slice(prefix.length) || '/';
    handler(req, res, next);
  };
}

/** Queries as node:querystring parsed them, by their text: a suite sends the same few again and again. */
const parsedQueries = new StringMemo<ParsedUrlQuery>(256);

/**
 * `parseQuery(text)`, as a copy of the one parsed before for the same text: the validator coerces
 * and fills the request's query in place, so each request gets its own object (with no prototype,
 * as node:querystring makes it) and its own arrays.
 */
export function parsedQuery(text: string): ParsedUrlQuery {
  const parsed = parsedQueries.get(text) ?? parsedQueries.set(text, parseQuery(text));
  const copy: ParsedUrlQuery = Object.create(null) as ParsedUrlQuery;
  for (const name in parsed) {
    const value = parsed[name];
    copy[name] = Array.isArray(value) ? [...value] : value;
  }
  return copy;
}
