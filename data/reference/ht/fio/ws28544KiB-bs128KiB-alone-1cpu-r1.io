rchar: 45219949581
wchar: 13662
syscr: 345220
syscw: 5
read_bytes: 831488
write_bytes: 28672
cancelled_write_bytes: 0
