import { createReadStream } from 'node:fs';
import { Controller, Get, Header, Inject, NotFoundException, Param, StreamableFile } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { OpenApiDocument } from './openapi-document.js';
import { DOCS_PAGE, INITIALIZER, INITIALIZER_NAME, swaggerUiAsset } from './swagger-ui.js';

/** `GET /openapi.json` and the Swagger UI page at `GET /docs`; outside /v1, so served without a token or microversion. */
@ApiExcludeController()
@Controller()
export class OpenApiController {
  constructor(@Inject(OpenApiDocument) private readonly openApi: OpenApiDocument) {}

  @Get('openapi.json')
  @Header('Cache-Control', 'no-cache')
  document(): Record<string, unknown> {
    return this.openApi.document;
  }

  @Get('docs')
  @Header('Content-Type', 'text/html; charset=utf-8')
  @Header('Cache-Control', 'no-cache')
  page(): string {
    return DOCS_PAGE;
  }

  @Get('docs/:asset')
  @Header('Cache-Control', 'public, max-age=3600')
  asset(@Param('asset') name: string): StreamableFile {
    if (name === INITIALIZER_NAME) return new StreamableFile(Buffer.from(INITIALIZER), { type: 'text/javascript; charset=utf-8' });
    const asset = swaggerUiAsset(name);
    if (asset === null) throw new NotFoundException();
    return new StreamableFile(createReadStream(asset.file), { type: asset.type });
  }
}
