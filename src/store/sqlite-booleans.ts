import {
  OperationNodeTransformer,
  PrimitiveValueListNode,
  ValueNode,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

const asSqlite = (value: unknown) => (typeof value === 'boolean' ? (value ? 1 : 0) : value);

class BooleanToInteger extends OperationNodeTransformer {
  protected override transformValue(node: ValueNode): ValueNode {
    return typeof node.value === 'boolean' ? { ...node, value: asSqlite(node.value) } : node;
  }

  protected override transformPrimitiveValueList(
    node: PrimitiveValueListNode,
  ): PrimitiveValueListNode {
    return node.values.some((value) => typeof value === 'boolean')
      ? PrimitiveValueListNode.create(node.values.map(asSqlite))
      : node;
  }
}

/**
 * better-sqlite3 refuses to bind JavaScript booleans; SQLite keeps them as 0/1. This lets the
 * same queries pass `true`/`false` on both engines (SQLite reads them back as 0/1).
 */
export class SqliteBooleanPlugin implements KyselyPlugin {
  private readonly transformer = new BooleanToInteger();

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.transformer.transformNode(args.node);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** A boolean column as either engine reads it back (SQLite: 0/1). */
export const asBoolean = (value: boolean | number): boolean => value === true || value === 1;
