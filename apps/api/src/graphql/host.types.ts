import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { AllocationType } from './lease.types.js';

@ObjectType('Capability')
export class CapabilityType {
  @Field(() => String) key!: string;
  @Field(() => String) value!: string;
}

/** A host as GET /v1/os-hosts/{id} shows it; its extra capabilities as a list of pairs. */
@ObjectType('Host')
export class HostType {
  @Field(() => String) created_at!: string;
  @Field(() => String, { nullable: true }) updated_at!: string | null;
  @Field(() => ID) id!: string;
  @Field(() => Int) vcpus!: number;
  @Field(() => String) cpu_info!: string;
  @Field(() => String) hypervisor_type!: string;
  @Field(() => Int) hypervisor_version!: number;
  @Field(() => String) hypervisor_hostname!: string;
  @Field(() => String) service_name!: string;
  @Field(() => Int) memory_mb!: number;
  @Field(() => Int) local_gb!: number;
  @Field(() => String) availability_zone!: string;
  @Field(() => Boolean) reservable!: boolean;
  @Field(() => [CapabilityType], { description: 'The extra capabilities, which REST merges into the host as top-level keys' })
  capabilities!: CapabilityType[];
  @Field(() => [AllocationType], { description: 'Bookings of leases not yet ended, as GET /v1/os-hosts/{id}/allocation (admins)' })
  allocations!: AllocationType[];
}

@InputType('CapabilityInput')
export class CapabilityInput {
  @Field(() => String) key!: string;
  @Field(() => String) value!: string;
}

@InputType('HostFilter')
export class HostFilterInput {
  @Field(() => [CapabilityInput], { nullable: true, description: 'Hosts having every one of these extra capabilities with these values' })
  capabilities?: CapabilityInput[] | null;
  @Field(() => Boolean, { nullable: true }) reservable?: boolean | null;
}

/** A floating IP as GET /v1/floatingips/{id} shows it. */
@ObjectType('FloatingIp')
export class FloatingIpType {
  @Field(() => String) created_at!: string;
  @Field(() => String, { nullable: true }) updated_at!: string | null;
  @Field(() => ID) id!: string;
  @Field(() => String) floating_network_id!: string;
  @Field(() => String, { nullable: true }) subnet_id!: string | null;
  @Field(() => String) floating_ip_address!: string;
  @Field(() => Boolean) reservable!: boolean;
}

/** POST /v1/os-hosts's body: the host's facts (standalone mode) and its extra capabilities, which REST takes as top-level keys. */
@InputType('CreateHostInput')
export class CreateHostInput {
  @Field(() => String) name!: string;
  @Field(() => Int, { nullable: true }) vcpus?: number | null;
  @Field(() => Int, { nullable: true }) memory_mb?: number | null;
  @Field(() => Int, { nullable: true }) local_gb?: number | null;
  @Field(() => String, { nullable: true }) cpu_info?: string | null;
  @Field(() => String, { nullable: true }) hypervisor_type?: string | null;
  @Field(() => Int, { nullable: true }) hypervisor_version?: number | null;
  @Field(() => String, { nullable: true }) service_name?: string | null;
  @Field(() => String, { nullable: true }) availability_zone?: string | null;
  @Field(() => [CapabilityInput], { nullable: true }) capabilities?: CapabilityInput[] | null;
}

/** PUT /v1/os-hosts/{id}'s body: extra capabilities to set, and whether the host is reservable. */
@InputType('UpdateHostInput')
export class UpdateHostInput {
  @Field(() => Boolean, { nullable: true }) reservable?: boolean | null;
  @Field(() => [CapabilityInput], { nullable: true }) capabilities?: CapabilityInput[] | null;
}
