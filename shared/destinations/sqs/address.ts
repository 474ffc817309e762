/**
 * The forms of a partner's SQS queue and IAM role the config accepts (docs/webhooks.md#sqs-destinations),
 * parsed once: the queue by URL or ARN, always sent to by URL in the queue's own region.
 */

const PARTITIONS: Readonly<Record<string, string>> = {
  aws: 'amazonaws.com',
  'aws-cn': 'amazonaws.com.cn',
  'aws-us-gov': 'amazonaws.com',
};
const QUEUE_NAME = '[A-Za-z0-9_-]{1,75}(?:\\.fifo)?|[A-Za-z0-9_-]{1,80}';
const QUEUE_ARN = new RegExp(
  `^arn:(aws|aws-cn|aws-us-gov):sqs:([a-z]{2}(?:-[a-z]+)+-\\d):(\\d{12}):(${QUEUE_NAME})$`,
);
const QUEUE_URL = new RegExp(
  `^https://sqs\\.([a-z]{2}(?:-[a-z]+)+-\\d)\\.(amazonaws\\.com(?:\\.cn)?)/(\\d{12})/(${QUEUE_NAME})$`,
);

export const ROLE_ARN =
  /^arn:(aws|aws-cn|aws-us-gov):iam::(\d{12}):role\/(?:[\w+=,.@-]+\/)*[\w+=,.@-]{1,64}$/;
/** STS's ExternalId: 2 to 1,224 of these characters. */
export const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

export interface QueueAddress {
  url: string;
  arn: string;
  region: string;
  account: string;
  name: string;
  /** A FIFO queue (the name ends in .fifo): each message needs a group and a deduplication id. */
  fifo: boolean;
}

/** The queue of `https://sqs.<region>.amazonaws.com/<account>/<name>` or `arn:aws:sqs:<region>:<account>:<name>`. */
export function parseQueue(value: string): QueueAddress | undefined {
  const arn = QUEUE_ARN.exec(value);
  if (arn) {
    const [, partition, region, account, name] = arn as unknown as [string, string, string, string, string];
    return address(partition, PARTITIONS[partition]!, region, account, name);
  }
  const url = QUEUE_URL.exec(value);
  if (url) {
    const [, region, domain, account, name] = url as unknown as [string, string, string, string, string];
    const partition = domain.endsWith('.cn') ? 'aws-cn' : region.startsWith('us-gov-') ? 'aws-us-gov' : 'aws';
    return address(partition, domain, region, account, name);
  }
  return undefined;
}

function address(partition: string, domain: string, region: string, account: string, name: string) {
  return {
    url: `https://sqs.${region}.${domain}/${account}/${name}`,
    arn: `arn:${partition}:sqs:${region}:${account}:${name}`,
    region,
    account,
    name,
    fifo: name.endsWith('.fifo'),
  };
}
