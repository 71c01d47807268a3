module zerolab/peers/go/copy-vs-append

go 1.19
