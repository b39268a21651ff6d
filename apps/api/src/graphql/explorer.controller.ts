import { createReadStream } from 'node:fs';
import { Controller, Get, Header, NotFoundException, Param, StreamableFile } from '@nestjs/common';
import { explorerAsset } from './explorer-assets.js';

/** GraphiQL's files for the page a browser gets at /graphql; outside /v1, served without a token like /docs. */
@Controller('graphql-explorer')
export class GraphqlExplorerController {
  @Get(':asset')
  @Header('X-Content-Type-Options', 'nosniff')
  @Header('Cache-Control', 'public, max-age=3600')
  asset(@Param('asset') name: string): StreamableFile {
    const asset = explorerAsset(name);
    if (asset === null) throw new NotFoundException();
    if (asset.kind === 'text') return new StreamableFile(Buffer.from(asset.text), { type: asset.type });
    return new StreamableFile(createReadStream(asset.file), { type: asset.type });
  }
}
