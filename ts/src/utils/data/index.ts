/**
 * `torch.utils.data`: datasets, samplers, collation and the DataLoader.
 *
 * @module
 */

export {
  Dataset,
  IterableDataset,
  TensorDataset,
  Subset,
  ConcatDataset,
  random_split,
  type MapDataset,
  type RowsOf,
  type SampleOf,
  type Sized,
} from "./datasets.js";
export {
  Sampler,
  SequentialSampler,
  RandomSampler,
  SubsetRandomSampler,
  WeightedRandomSampler,
  BatchSampler,
  type RandomSamplerOptions,
} from "./samplers.js";
export {
  default_collate,
  default_convert,
  type Collated,
  type Converted,
} from "./collate.js";
export { DataLoader, type DataLoaderOptions } from "./dataloader.js";
