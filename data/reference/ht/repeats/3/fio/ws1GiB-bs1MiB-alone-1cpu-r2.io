rchar: 10159762373
wchar: 13655
syscr: 9908
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
