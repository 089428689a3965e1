rchar: 17170439106
wchar: 13662
syscr: 4192194
syscw: 5
read_bytes: 942080
write_bytes: 8192
cancelled_write_bytes: 0
