// The device's limit on one block's shared memory, checked before a launch (host-compilable:
// the GPU tests call it directly).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "api/attention_args.hpp"
#include "api/device_query.hpp"
#include "cuda/common/cuda_check.hpp"

namespace fattn::detail {

// The most shared memory one block may take on the problem's device (the opt-in limit, or a
// test's cap): the selector's DeviceInfo, so that the launchers pick their tiles from the same
// number the selector judged by (and the query is cached, not a driver call per launch).
inline Status device_shared_bytes_optin(const AttentionArgs& args, int* shared_optin) {
  const DeviceInfo device = query_cuda_device(args.problem.device.index);
  if (!device.present) {
    return Status::InvalidArgument("no CUDA device " + to_string(args.problem.device) +
                                   " is available");
  }
  *shared_optin = device.shared_bytes_per_block;
  return Status::Ok();
}

// Refuses, naming both sizes, a launch whose blocks need more shared memory than the problem's
// device lets one block take (its opt-in limit: 227 KB on Hopper, 163 KB on sm_80 / sm_87, 99 KB
// on sm_86 / sm_89). Without it such a launch fails in the driver with "invalid argument". `what`
// names the kernel or launch sequence ("sm80::backward_kernel"). A launcher that runs several
// kernels asks for the largest first, so that it writes no output before it can finish.
inline Status require_shared_bytes(const AttentionArgs& args, int shared_bytes, const char* what) {
  int shared_optin = 0;
  FATTN_RETURN_IF_ERROR(device_shared_bytes_optin(args, &shared_optin));
  if (shared_bytes > shared_optin) {
    return Status::Unsupported(std::string(what) + " needs " + std::to_string(shared_bytes) +
                               " bytes of shared memory per block for head_dim " +
                               std::to_string(args.problem.head_dim) + ", but device " +
                               std::to_string(args.problem.device.index) + " allows " +
                               std::to_string(shared_optin));
  }
  return Status::Ok();
}

}  // namespace fattn::detail
