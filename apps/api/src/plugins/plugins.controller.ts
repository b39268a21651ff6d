import { Controller, Get } from '@nestjs/common';
import { RESOURCE_TYPES, type ResourceType } from '#domain/index.js';

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
  'virtual:instance': {
    name: 'virtual.instance.plugin',
    title: 'Virtual Instance Plugin',
    description: "Reserves instance-sized slices of hosts (vcpus, memory, disk), with affinity, under each host's capacity.",
  },
  'flavor:instance': {
    name: 'flavor.instance.plugin',
    title: 'Flavor-based Instance Plugin',
    description: 'Reserves instances of an existing flavor, from the same slot capacity as virtual:instance.',
  },
  'virtual:floatingip': {
    name: 'virtual.floatingip.plugin',
    title: 'Floating IP Plugin',
    description: 'Reserves registered floating IP addresses of an external network.',
  },
};

/** `GET /v1/plugins`: upstream always answers 500 (handler signature); here it lists the resource types Leasehold supports. */
@Controller('v1/plugins')
export class PluginsController {
  @Get()
  list(): { plugins: PluginView[] } {
    return {
      plugins: RESOURCE_TYPES.map((type) => ({
        name: PLUGINS[type].name,
        resource_type: type,
        title: PLUGINS[type].title,
        description: PLUGINS[type].description,
      })),
    };
  }
}
