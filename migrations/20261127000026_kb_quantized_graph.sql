-- High-volume ingestion (issue #38): at 1,024 dimensions and above the graph holds each vector's
-- sign bits (`binary_quantize`, 128 bytes at 1,024 dimensions instead of 4,096), and a search
-- re-ranks the graph's candidates by their full vectors. Inserting into the graph was the
-- ingestion ceiling: 10,000 vectors of 1,024 dimensions took 9.3 s per 3,000 full (323/s) and
-- 6.9 s for all 10,000 as bits (1,450/s), one connection on two cores. Below 1,024 dimensions
-- (the local models) a bit per dimension loses too much to re-rank back, so those graphs stay.
drop index if exists kb_chunks_hnsw_1024;
drop index if exists kb_chunks_hnsw_3072;
create index kb_chunks_bits_1024 on kb_chunks
    using hnsw ((binary_quantize(embedding)::bit(1024)) bit_hamming_ops) where dims = 1024;
create index kb_chunks_bits_3072 on kb_chunks
    using hnsw ((binary_quantize(embedding)::bit(3072)) bit_hamming_ops) where dims = 3072;
