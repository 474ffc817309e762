import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';

export interface ItemImages {
  oldImage: Record<string, unknown> | undefined;
  newImage: Record<string, unknown> | undefined;
}

/** A DynamoDB stream record's before/after images as plain objects. */
export function imagesOf(record: DynamoDBRecord): ItemImages {
  const decode = (raw: Record<string, unknown> | undefined) =>
    raw ? unmarshall(raw as Record<string, AttributeValue>) : undefined;
  return { oldImage: decode(record.dynamodb?.OldImage), newImage: decode(record.dynamodb?.NewImage) };
}
