/**
 * Route validators and response serializers compiled on a route's first request instead of at
 * start. Fastify compiles every route's schemas (Ajv for the request parts, fast-json-stringify
 * for the answers) while it gets ready: with the gateway's and the embedded backends' ≈ 1,500
 * routes that was most of a cold start and tens of MiB of generated code, nearly all of it for
 * routes a given process never serves. Fastify's own compilers still do the compiling, with the
 * same options, so validation, coercion and the 400 answers are unchanged; only the moment moves.
 *
 * Validators: Fastify's Ajv compiler is kept (so it still lower-cases header schemas, which it does
 * only for its own compiler) and its Ajv instance's `compile` is wrapped, through the documented
 * `ajv.onCreate` hook. Serializers: `schemaController.compilersFactory.buildSerializer` wraps
 * Fastify's default factory (`@fastify/fast-json-stringify-compiler`).
 *
 * A schema that does not compile no longer stops the start: `LazySchemas.compileAll` compiles
 * everything that is pending, and test/http/lazy-schemas.test.ts runs it over every route of a
 * gateway with all its embedded backends, so such a schema fails the tests instead.
 */
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type AjvOptions = NonNullable<FastifyServerOptions['ajv']>;
type AjvInstance = Parameters<NonNullable<AjvOptions['onCreate']>>[0];
type Compiled = ((...args: unknown[]) => unknown) & { errors?: unknown };
type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** One Fastify instance's (or several's) lazily compiled schemas, and the way to compile them all now. */
export class LazySchemas {
  /** Compiles not yet run, each with what it compiles (for a failure's message); removed once run. */
  private readonly pending = new Map<() => void, () => string>();
  private readonly serializers: SerializerFactory = SerializerSelector();

  /** How many validators and serializers have not been compiled yet. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Compiles every pending validator and serializer now (what a start did before they were lazy).
   * Throws one error listing each route whose schema does not compile.
   */
  compileAll(): void {
    const failures: string[] = [];
    for (const [compile, what] of [...this.pending]) {
      try {
        compile();
      } catch (error) {
        failures.push(`${what()}: ${(error as Error).message}`);
      }
    }
    if (failures.length > 0)
      throw new Error(`schemas that do not compile:\n${failures.join('\n')}`);
  }

  /**
   * Fastify server options that make validators and serializers lazy; `customOptions` are Ajv's
   * options, as the `ajv.customOptions` server option takes them.
   */
  serverOptions(
    customOptions: AjvOptions['customOptions'] = {},
  ): Pick<FastifyServerOptions, 'ajv' | 'schemaController'> {
    return {
      ajv: { customOptions, onCreate: (ajv) => this.wrapAjv(ajv) },
      schemaController: {
        compilersFactory: {
          buildSerializer: (externalSchemas, serializerOptions) => {
            const compile = this.serializers(externalSchemas as never, serializerOptions as never);
            return (route) =>
              this.lazy(
                () => compile(route) as Compiled,
                () => `${route.method} ${route.url}: the ${route.httpStatus} answer's schema`,
              ) as (document: unknown) => string;
          },
        },
      },
    };
  }

  /** Ajv's `compile` answers a function that compiles on its first call. */
  private wrapAjv(ajv: AjvInstance): void {
    const compile = ajv.compile.bind(ajv);
    ajv.compile = ((schema: { $id?: string }) =>
      this.lazy(
        () => {
          // Two routes may carry one schema with an `$id`: Ajv compiles an id once, so the second reuses it.
          const stored = schema.$id ? ajv.getSchema(schema.$id) : undefined;
          return (stored ?? compile(schema)) as Compiled;
        },
        () => `request schema ${JSON.stringify(schema).slice(0, 200)}`,
      )) as unknown as AjvInstance['compile'];
  }

  /**
   * A stand-in for a compiled function: compiles on its first call (or at `compileAll`), then
   * calls through, copying Ajv's `errors` (Fastify reads them off the function after a call).
   */
  private lazy(build: () => Compiled, what: () => string): Compiled {
    let compiled: Compiled | undefined;
    const compile = (): Compiled => {
      if (!compiled) {
        compiled = build();
        this.pending.delete(compile);
      }
      return compiled;
    };
    this.pending.set(compile, what);
    const call: Compiled = function (this: unknown, ...args: unknown[]) {
      const target = compiled ?? compile();
      const result = target.apply(this, args);
      call.errors = target.errors;
      return result;
    };
    return call;
  }
}
