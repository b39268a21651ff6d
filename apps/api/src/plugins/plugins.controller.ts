import { Controller, Get } from '@nestjs/common';
import { RESOURCE_TYPES, type ResourceType } from '../../../../libs/domain/src/index.js';

export interface PluginView {
  readonly name: string;
  readonly resource_type: ResourceType;
  readonly title: string;
  readonly description: string;
}

/** One entry per resource type; a new type in the domain fails to compile until it is described here. */
const PLUGINS: { readonly [type in ResourceType]: Omit<PluginView, 'resource_type'> } = {
  'physical:host': {
    // upstream's plugin name (`[manager]plugins`) and title
    name: 'physical.host.plugin',
    title: 'Physical Host Plugin',
    description: 'Reserves whole physical hosts for the time of a lease.',
  },
};

/** `GET /v1/plugins`: upstream always answers 500 (handler signature); here it lists the resource types Leasehold supports. */
@Controller('v1/plugins')
export class PluginsController {
  @Get()
  list(): { plugins: PluginView[] } {
    return { plugins: RESOURCE_TYPES.map((type) => ({ name: PLUGINS[type].name, resource_type: type, title: PLUGINS[type].title, description: PLUGINS[type].description })) };
  }
}
