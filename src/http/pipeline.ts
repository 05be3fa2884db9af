import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs connect-style steps in order as one handler: what an Express router does for
 * its layers, without matching each layer's path again (a contract's steps all run on
 * every request of its mount). A step that throws, calls `next(error)` or returns a
 * rejected promise ends the run and hands the error to the caller's `next`, as the
 * router would; the last step calling `next()` hands on to whatever follows the mount.
 * The profile had the router's per-layer work (`handle`, `next`, `trimPrefix`,
 * `parseurl`) at about a tenth of a request's CPU (docs/performance.md).
 */
export function pipeline(steps: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction) => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error) return done(error);
      const step = steps[index++];
      if (!step) return done();
      try {
        const result = step(req, res, next) as unknown;
        if (result instanceof Promise) result.then(undefined, (rejection: unknown) => next(rejection ?? new Error('Rejected promise')));
      } catch (thrown) {
        next(thrown ?? new Error('A step threw nothing'));
      }
    };
    next();
  };
}
