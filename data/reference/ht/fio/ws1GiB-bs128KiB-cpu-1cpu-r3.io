rchar: 15744698825
wchar: 5972
syscr: 120310
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
