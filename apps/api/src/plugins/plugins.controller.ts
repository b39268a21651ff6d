import { Controller, Get } from '@nestjs/common';
import type { ResourceType } from '#domain/index.js';
import { RESERVATION_TYPES } from '#plugins/reservation-types.js';

export interface PluginView {
  readonly name: string;
  readonly resource_type: ResourceType;
  readonly title: string;
  readonly description: string;
}

/** `GET /v1/plugins`: upstream always answers 500 (handler signature); here it lists the resource types Leasehold supports. */
@Controller('v1/plugins')
export class PluginsController {
  @Get()
  list(): { plugins: PluginView[] } {
    return {
      plugins: RESERVATION_TYPES.map(({ resourceType, plugin }) => ({
        name: plugin.name,
        resource_type: resourceType,
        title: plugin.title,
        description: plugin.description,
      })),
    };
  }
}
