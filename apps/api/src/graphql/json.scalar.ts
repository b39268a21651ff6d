import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';

const literal = (node: ValueNode): unknown => {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((field) => [field.name.value, literal(field.value)]));
    case Kind.LIST:
      return node.values.map(literal);
    default:
      return null;
  }
};

/** Data whose shape is the event catalogue's or the usage report's (docs/events.md, docs/usage.md), as REST gives it. */
export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'A JSON value, exactly as the REST API gives it.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: literal,
});
