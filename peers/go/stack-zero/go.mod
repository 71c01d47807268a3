module zerolab/peers/go/stack-zero

go 1.19
