rchar: 43026590688
wchar: 13662
syscr: 328485
syscw: 5
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
