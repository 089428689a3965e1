rchar: 38105983915
wchar: 13662
syscr: 2326018
syscw: 5
read_bytes: 327680
write_bytes: 16384
cancelled_write_bytes: 0
