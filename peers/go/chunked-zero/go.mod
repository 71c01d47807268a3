module zerolab/peers/go/chunked-zero

go 1.19
