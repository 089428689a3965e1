rchar: 61702343171
wchar: 11285
syscr: 470943
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
