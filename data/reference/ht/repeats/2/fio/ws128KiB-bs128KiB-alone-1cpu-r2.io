rchar: 105158085071
wchar: 5984
syscr: 802482
syscw: 3
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
