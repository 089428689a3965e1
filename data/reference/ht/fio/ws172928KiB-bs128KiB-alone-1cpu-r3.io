rchar: 40718019601
wchar: 13662
syscr: 310873
syscw: 5
read_bytes: 69632
write_bytes: 8192
cancelled_write_bytes: 0
