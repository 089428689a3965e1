rchar: 26427328980
wchar: 5971
syscr: 25393
syscw: 3
read_bytes: 0
write_bytes: 28672
cancelled_write_bytes: 0
