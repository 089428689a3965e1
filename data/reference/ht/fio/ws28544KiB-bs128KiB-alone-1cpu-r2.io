rchar: 42972589070
wchar: 13662
syscr: 328074
syscw: 5
read_bytes: 32768
write_bytes: 28672
cancelled_write_bytes: 0
