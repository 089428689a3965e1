rchar: 22161181136
wchar: 5982
syscr: 1352797
syscw: 3
read_bytes: 0
write_bytes: 20480
cancelled_write_bytes: 0
