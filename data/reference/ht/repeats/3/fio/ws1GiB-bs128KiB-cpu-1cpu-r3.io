rchar: 11933387211
wchar: 5972
syscr: 91232
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
