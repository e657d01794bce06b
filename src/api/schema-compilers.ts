/**
 * The compilers that turn the routes' schemas into request validators and response serializers,
 * shared by every app this process builds. Fastify's defaults belong to one app: a second app
 * (the tests build many per process) would compile the same sixty routes' schemas again, which is
 * most of the time an app takes to build. Shared, Ajv keeps each compiled schema (it caches by
 * schema), and a serializer is compiled once per distinct response schema.
 */
import { AjvCompiler } from '@fastify/ajv-compiler';
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;
type BuildSerializer = NonNullable<CompilersFactory['buildSerializer']>;
type Serializer = ReturnType<ReturnType<BuildSerializer>>;

const buildValidator = AjvCompiler();
const compileSerializer = SerializerSelector();
const serializers = new Map<string, Serializer>();

/** The same compiled serializer for the same response schema, shared schemas and options. */
const buildSerializer: BuildSerializer = (externalSchemas, serializerOptions) => {
  const compile = compileSerializer(externalSchemas, serializerOptions);
  const context = JSON.stringify([externalSchemas, serializerOptions]);
  return (route) => {
    const key = `${context}\0${JSON.stringify(route.schema)}`;
    let serializer = serializers.get(key);
    if (!serializer) {
      serializer = compile(route);
      serializers.set(key, serializer);
    }
    return serializer;
  };
};

export const sharedSchemaCompilers: CompilersFactory = { buildValidator, buildSerializer };
