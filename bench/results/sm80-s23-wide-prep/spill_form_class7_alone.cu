#include "cuda/sm80/forward.cuh"
namespace fattn::detail::sm80 {
template Status launch_forward_shifted_windows<WideWindowForwardConfig<128, 7>, __half>(const AttentionArgs&, const ForwardParams&);
}
