import '../adapters/dynamodb/table';
