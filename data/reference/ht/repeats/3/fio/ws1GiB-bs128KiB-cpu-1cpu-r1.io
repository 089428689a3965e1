rchar: 12837915081
wchar: 5971
syscr: 98133
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
