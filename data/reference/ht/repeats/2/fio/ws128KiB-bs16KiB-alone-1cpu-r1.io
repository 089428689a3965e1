rchar: 53882563535
wchar: 13667
syscr: 3288943
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
