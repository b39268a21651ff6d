import { type TlsCredentials, readTlsFiles } from '#observability/tls.js';
import type { ApiConfig } from '../config.js';

/** NestFactory's `httpsOptions`: the certificate and key read (a missing or bad file stops the start, naming it), or plain HTTP. */
export const httpsOptions = (config: Pick<ApiConfig, 'tls'>): TlsCredentials | undefined =>
  config.tls === null ? undefined : readTlsFiles(config.tls);

/** For the start-up log line: where clients reach this process, in the scheme it speaks. */
export const listeningUrl = (config: Pick<ApiConfig, 'tls' | 'host' | 'port'>): string =>
  `${config.tls === null ? 'http' : 'https'}://${config.host}:${config.port}`;
