// A made-up all_reduce_perf log of one 8-GPU H100 node in the newer column set, written for this
// project (not a measurement): the paste box's default and the tests' baseline.
#pragma once
#include <string_view>

namespace sb::gpus {

inline constexpr std::string_view kSampleLog =
    R"LOG(# nccl-tests version 2.13.11 nccl-headers=22105 nccl-library=22105
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 8 minBytes 8 maxBytes 8589934592 step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  41873 on   gpu-node-07 device  0 [0x18] NVIDIA H100 80GB HBM3
#  Rank  1 Group  0 Pid  41873 on   gpu-node-07 device  1 [0x2a] NVIDIA H100 80GB HBM3
#  Rank  2 Group  0 Pid  41873 on   gpu-node-07 device  2 [0x3a] NVIDIA H100 80GB HBM3
#  Rank  3 Group  0 Pid  41873 on   gpu-node-07 device  3 [0x5d] NVIDIA H100 80GB HBM3
#  Rank  4 Group  0 Pid  41873 on   gpu-node-07 device  4 [0x9a] NVIDIA H100 80GB HBM3
#  Rank  5 Group  0 Pid  41873 on   gpu-node-07 device  5 [0xab] NVIDIA H100 80GB HBM3
#  Rank  6 Group  0 Pid  41873 on   gpu-node-07 device  6 [0xba] NVIDIA H100 80GB HBM3
#  Rank  7 Group  0 Pid  41873 on   gpu-node-07 device  7 [0xdb] NVIDIA H100 80GB HBM3
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
           8             2     float     sum      -1    17.81    0.00    0.00       0    17.62    0.00    0.00       0
          32             8     float     sum      -1    18.16    0.00    0.00       0    17.54    0.00    0.00       0
         128            32     float     sum      -1    18.04    0.01    0.01       0    17.86    0.01    0.01       0
         512           128     float     sum      -1    17.53    0.03    0.05       0    18.01    0.03    0.05       0
        2048           512     float     sum      -1    17.51    0.12    0.20       0    17.94    0.11    0.20       0
        8192          2048     float     sum      -1    17.58    0.47    0.82       0    17.60    0.47    0.81       0
       32768          8192     float     sum      -1    18.10    1.81    3.17       0    18.54    1.77    3.09       0
      131072         32768     float     sum      -1    18.30    7.16   12.53       0    18.41    7.12   12.46       0
      524288        131072     float     sum      -1    20.99   24.98   43.72       0    21.39   24.51   42.90       0
     2097152        524288     float     sum      -1    28.80   72.81  127.41       0    28.49   73.60  128.80       0
     8388608       2097152     float     sum      -1    60.32  139.07  243.37       0    57.05  147.04  257.32       0
    33554432       8388608     float     sum      -1    184.1  182.28  318.98       0    177.9  188.58  330.01       0
   134217728      33554432     float     sum      -1    652.6  205.66  359.91       0    651.6  206.00  360.50       0
   536870912     134217728     float     sum      -1   2583.3  207.82  363.69       0   2662.9  201.61  352.81       0
  2147483648     536870912     float     sum      -1    10200  210.53  368.43       0    10450  205.49  359.61       0
  8589934592    2147483648     float     sum      -1    41890  205.06  358.85       0    41226  208.36  364.63       0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 137.5722 
#
)LOG";

}  // namespace sb::gpus
