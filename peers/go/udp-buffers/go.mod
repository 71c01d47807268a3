module zerolab/peers/go/udp-buffers

go 1.19
