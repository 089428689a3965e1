rchar: 13725141449
wchar: 5972
syscr: 104902
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
