module zerolab/peers/go/ewaste

go 1.19
