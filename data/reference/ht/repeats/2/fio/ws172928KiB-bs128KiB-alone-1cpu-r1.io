rchar: 42432834502
wchar: 13662
syscr: 323954
syscw: 5
read_bytes: 262144
write_bytes: 36864
cancelled_write_bytes: 0
