rchar: 47308581830
wchar: 13663
syscr: 361155
syscw: 5
read_bytes: 331776
write_bytes: 36864
cancelled_write_bytes: 0
