/** Asks a QRL node (the fake one, or a real one) the calls of state-api.proto over gRPC. */
import * as grpc from '@grpc/grpc-js';
import { STATE_CALLS, type StateMethod } from './server.ts';

export interface StateClient {
  call(method: StateMethod, request: Record<string, unknown>): Promise<any>;
  close(): void;
}

export function createStateClient(address: string): StateClient {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return {
    call(method, request) {
      const { request: req, response } = STATE_CALLS[method];
      return new Promise((resolve, reject) => {
        client.makeUnaryRequest(
          `/qrl.PublicAPI/${method}`,
          (m: Record<string, unknown>) => Buffer.from(req.encode(req.fromObject(m)).finish()),
          (b: Buffer) => response.toObject(response.decode(b), { longs: String, defaults: true }),
          request,
          (error, value) => (error ? reject(error) : resolve(value)),
        );
      });
    },
    close: () => client.close(),
  };
}
