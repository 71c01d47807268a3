module zerolab/peers/go/memclr-threshold

go 1.19
